/** Which parser reads which repository's test log: swebench 4.1.0's map, by `owner/name` as the rows spell it. */
import { parseCalypso, parseChartJs, parseImmutableJs, parseJest, parseJestJson, parseKarma, parseMarked, parseP5js, parseReactPdf, parseTap, parseVitest } from './javascript.ts';
import { parseDjango, parseMatplotlib, parsePytest, parsePytestOptions, parsePytestV2, parseSeaborn, parseSympy } from './python.ts';
import { parseDoctest, parseGoogletest, parseJq, parseMicropython, parseRedis } from './c.ts';
import { parseGoTest } from './go.ts';
import { parseAnt, parseGradleCustom, parseMaven } from './java.ts';
import { parsePhpunit } from './php.ts';
import type { LogParser } from './python-text.ts';
import { parseCucumber, parseJekyll, parseMinitest, parseRspecTransformedJson, parseRubyUnit } from './ruby.ts';
import { parseCargo } from './rust.ts';

/**
 * The parsers by swebench's names (its `parse_log_<name>` functions), for rows of a repository swebench does not
 * map (a task built from any project).
 */
export const LOG_PARSERS = {
  pytest: parsePytest,
  pytest_options: parsePytestOptions,
  pytest_v2: parsePytestV2,
  django: parseDjango,
  sympy: parseSympy,
  seaborn: parseSeaborn,
  matplotlib: parseMatplotlib,
  calypso: parseCalypso,
  chart_js: parseChartJs,
  marked: parseMarked,
  p5js: parseP5js,
  react_pdf: parseReactPdf,
  jest: parseJest,
  jest_json: parseJestJson,
  vitest: parseVitest,
  karma: parseKarma,
  tap: parseTap,
  immutable_js: parseImmutableJs,
  redis: parseRedis,
  jq: parseJq,
  doctest: parseDoctest,
  micropython_test: parseMicropython,
  googletest: parseGoogletest,
  gotest: parseGoTest,
  maven: parseMaven,
  ant: parseAnt,
  gradle_custom: parseGradleCustom,
  phpunit: parsePhpunit,
  jekyll: parseJekyll,
  minitest: parseMinitest,
  cucumber: parseCucumber,
  ruby_unit: parseRubyUnit,
  rspec_transformed_json: parseRspecTransformedJson,
  cargo: parseCargo,
} as const satisfies Record<string, LogParser>;

export type LogParserName = keyof typeof LOG_PARSERS;

export const PARSER_OF_REPOSITORY: Readonly<Record<string, LogParserName>> = {
  // C and C++
  'redis/redis': 'redis',
  'jqlang/jq': 'jq',
  'nlohmann/json': 'doctest',
  'micropython/micropython': 'micropython_test',
  'valkey-io/valkey': 'redis',
  'fmtlib/fmt': 'googletest',
  // Go
  'caddyserver/caddy': 'gotest',
  'hashicorp/terraform': 'gotest',
  'prometheus/prometheus': 'gotest',
  'gohugoio/hugo': 'gotest',
  'gin-gonic/gin': 'gotest',
  // Java
  'google/gson': 'maven',
  'apache/druid': 'maven',
  'javaparser/javaparser': 'maven',
  'projectlombok/lombok': 'ant',
  'apache/lucene': 'gradle_custom',
  'reactivex/rxjava': 'gradle_custom',
  // JavaScript and TypeScript
  'Automattic/wp-calypso': 'calypso',
  'chartjs/Chart.js': 'chart_js',
  'markedjs/marked': 'marked',
  'processing/p5.js': 'p5js',
  'diegomura/react-pdf': 'react_pdf',
  'babel/babel': 'jest',
  'vuejs/core': 'vitest',
  'facebook/docusaurus': 'jest',
  'immutable-js/immutable-js': 'immutable_js',
  'mrdoob/three.js': 'tap',
  'preactjs/preact': 'karma',
  'axios/axios': 'tap',
  // PHP
  'phpoffice/phpspreadsheet': 'phpunit',
  'laravel/framework': 'phpunit',
  'php-cs-fixer/php-cs-fixer': 'phpunit',
  'briannesbitt/carbon': 'phpunit',
  // Python
  'astropy/astropy': 'pytest_v2',
  'django/django': 'django',
  'marshmallow-code/marshmallow': 'pytest',
  'matplotlib/matplotlib': 'matplotlib',
  'mwaskom/seaborn': 'seaborn',
  'pallets/flask': 'pytest',
  'psf/requests': 'pytest_options',
  'pvlib/pvlib-python': 'pytest',
  'pydata/xarray': 'pytest',
  'pydicom/pydicom': 'pytest_options',
  'pylint-dev/astroid': 'pytest',
  'pylint-dev/pylint': 'pytest_options',
  'pytest-dev/pytest': 'pytest',
  'pyvista/pyvista': 'pytest',
  'scikit-learn/scikit-learn': 'pytest_v2',
  'sqlfluff/sqlfluff': 'pytest',
  'sphinx-doc/sphinx': 'pytest_v2',
  'sympy/sympy': 'sympy',
  // Rust
  'burntsushi/ripgrep': 'cargo',
  'sharkdp/bat': 'cargo',
  'astral-sh/ruff': 'cargo',
  'tokio-rs/tokio': 'cargo',
  'uutils/coreutils': 'cargo',
  'nushell/nushell': 'cargo',
  'tokio-rs/axum': 'cargo',
  // Ruby
  'jekyll/jekyll': 'jekyll',
  'fluent/fluentd': 'ruby_unit',
  'fastlane/fastlane': 'rspec_transformed_json',
  'jordansissel/fpm': 'rspec_transformed_json',
  'faker-ruby/faker': 'ruby_unit',
  'rubocop/rubocop': 'rspec_transformed_json',
};

export type { LogParser } from './python-text.ts';
