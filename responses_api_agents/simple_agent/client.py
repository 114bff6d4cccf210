"""NeMo Gym's quickstart client, for the step `python responses_api_agents/simple_agent/client.py`.

Run it with the project's Python venv (`npm run setup:python`, then `.venv/bin/python ...`) while `ngym run`
serves the quickstart config. It asks the head server for the running servers (as every NeMo Gym client does),
sends the quickstart's weather request to the agent's /v1/responses and prints the output items.
Pass +head_server.port=<port> when the head server is not on 11000, and +agent_name=<name> for another agent.
`npx ngym client` does the same from Node.
"""

import json
import sys
from asyncio import run

from nemo_gym.global_config import get_global_config_dict
from nemo_gym.server_utils import ServerClient

QUICKSTART_AGENTS = ("simple_weather_simple_agent", "example_single_tool_call_simple_agent")

WEATHER_TOOL = {
    "type": "function",
    "name": "get_weather",
    "description": "",
    "parameters": {
        "type": "object",
        "properties": {"city": {"type": "string", "description": ""}},
        "required": ["city"],
        "additionalProperties": False,
    },
    "strict": True,
}


def main() -> int:
    client = ServerClient.load_from_global_config()
    agents = [name for name, entry in client.global_config_dict.items() if "responses_api_agents" in (entry or {})]
    wanted = get_global_config_dict().get("agent_name")
    agent = wanted or next((name for name in QUICKSTART_AGENTS if name in agents), None)
    if agent not in agents:
        print(f"No agent {agent or 'of the quickstart'} is running; pass +agent_name=<one of: {', '.join(agents)}>", file=sys.stderr)
        return 1
    request = {
        "input": [
            {
                "role": "developer",
                "content": "You are a helpful personal assistant that aims to be helpful and reduce any pain points the user has.",
            },
            {"role": "user", "content": "going out in sf tn"},
        ],
        "tools": [WEATHER_TOOL],
    }
    response = run(client.post(server_name=agent, url_path="/v1/responses", json=request))
    response.raise_for_status()
    print(json.dumps(run(response.json())["output"], indent=4))
    return 0


if __name__ == "__main__":
    sys.exit(main())
