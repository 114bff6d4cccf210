"""Renders Jinja templates as upstream's mini-swe-agent does (jinja2.Template(text).render(**context)), for
the parity test responses_api_agents/mini_swe_agent/templates.test.ts. Reads a JSON list of
{template, context} on stdin; prints the JSON list of rendered strings."""
import json
import sys

from jinja2 import Template

json.dump([Template(item["template"]).render(**item["context"]) for item in json.load(sys.stdin)], sys.stdout)
