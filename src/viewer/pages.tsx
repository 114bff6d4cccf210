/** @jsxRuntime automatic */
/** @jsxImportSource hono/jsx */
/** The overview (counts, reward histogram, pass@k, aggregate metrics) and the filterable rollout table. */
import { PythonFloat } from '../python-compat/python-json.ts';
import { Layout } from './layout.tsx';
import type { RolloutIndex, RolloutSummary } from './rollout-index.ts';
import { formatNumber, type HistogramBin, rewardHistogram } from '../metrics/reward-histogram.ts';
import { type TaskStats, taskStats } from './stats.ts';

/** A link's query string from parameters (empty ones dropped). */
export function queryString(parameters: Record<string, string | number | undefined>): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(parameters)) if (value !== undefined && value !== '') search.set(key, String(value));
  const text = search.toString();
  return text === '' ? '' : `?${text}`;
}

export function RewardBadge(props: { reward: number | null; threshold: number }) {
  if (props.reward === null) return <span class="reward">–</span>;
  return <span class={`reward ${props.reward >= props.threshold ? 'pass' : 'fail'}`}>{formatNumber(props.reward)}</span>;
}

const percent = (value: number) => `${(100 * value).toFixed(1)}%`;

function binLink(bin: HistogramBin): string {
  if (bin.from === bin.to) return `/rollouts${queryString({ reward_min: bin.from, reward_max: bin.to })}`;
  return `/rollouts${queryString(bin.inclusive ? { reward_min: bin.from, reward_max: bin.to } : { reward_min: bin.from, reward_below: bin.to })}`;
}

/** Bars as SVG (attributes, not inline styles, which the Content-Security-Policy forbids); each links to its rollouts. */
function Histogram(props: { bins: HistogramBin[] }) {
  const highest = Math.max(1, ...props.bins.map((bin) => bin.count));
  const slot = 60;
  const chart = 120;
  return (
    <svg class="histogram" viewBox={`0 0 ${props.bins.length * slot} ${chart + 40}`} role="img" aria-label="Reward histogram">
      {props.bins.map((bin, position) => {
        const height = Math.max(1, Math.round((chart * bin.count) / highest));
        const x = position * slot;
        return (
          <a class="bar" href={binLink(bin)}>
            <title>{`reward ${bin.label}: ${bin.count} rollouts`}</title>
            <text x={x + slot / 2} y={chart - height + 12} text-anchor="middle" class="count">
              {bin.count}
            </text>
            <rect x={x + 6} y={chart - height + 16} width={slot - 12} height={height} rx="3" />
            <text x={x + slot / 2} y={chart + 32} text-anchor="middle" class="label">
              {bin.label}
            </text>
          </a>
        );
      })}
    </svg>
  );
}

/** Renders upstream-style aggregate metrics (AvgMinMax objects or string counts) as a table. */
function MetricsTable(props: { metrics: Record<string, unknown> }) {
  const value = (item: unknown) => (item instanceof PythonFloat ? formatNumber(item.value) : typeof item === 'number' ? formatNumber(item) : String(item));
  const rows = Object.entries(props.metrics).filter(([, item]) => typeof item === 'object' && item !== null) as [string, Record<string, unknown>][];
  return (
    <table>
      <thead>
        <tr>
          <th>field</th>
          <th class="num">non-null</th>
          <th class="num">average</th>
          <th class="num">min</th>
          <th class="num">max</th>
          <th class="num">median</th>
          <th class="num">std</th>
          <th class="num">unique</th>
        </tr>
      </thead>
      <tbody>
        {rows.map(([name, stats]) => (
          <tr>
            <td>{name}</td>
            <td class="num">{value(stats['Total # non-null values'] ?? stats.total_count)}</td>
            {['Average', 'Min', 'Max', 'Median', 'Standard deviation'].map((key) => (
              <td class="num">{key in stats ? value(stats[key]) : ''}</td>
            ))}
            <td class="num">{'unique_count' in stats ? value(stats.unique_count) : ''}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function TaskTable(props: { tasks: TaskStats[]; ks: number[]; threshold: number }) {
  return (
    <table id="tasks">
      <thead>
        <tr>
          <th>task</th>
          <th>prompt</th>
          <th class="num">rollouts</th>
          <th class="num">passed</th>
          <th class="num">mean reward</th>
          {props.ks.map((k) => (
            <th class="num">pass@{k}</th>
          ))}
        </tr>
      </thead>
      <tbody>
        {props.tasks.map((task) => (
          <tr>
            <td>
              <a href={`/rollouts${queryString({ task: task.taskKey })}`}>{task.taskIndex !== null ? `#${task.taskIndex}` : task.taskKey}</a>
            </td>
            <td class="text">{task.prompt}</td>
            <td class="num">{task.rollouts}</td>
            <td class="num">{task.passed}</td>
            <td class="num">{task.meanReward === null ? '–' : formatNumber(task.meanReward)}</td>
            {props.ks.map((k) => (
              <td class="num">{task.passAt.has(k) ? percent(task.passAt.get(k) as number) : ''}</td>
            ))}
          </tr>
        ))}
      </tbody>
    </table>
  );
}

export function OverviewPage(props: { index: RolloutIndex; threshold: number; taskPage: number; tasksPerPage: number }) {
  const { index, threshold } = props;
  const rewards = index.rollouts.map((rollout) => rollout.reward).filter((reward): reward is number => reward !== null);
  const invalid = index.rollouts.filter((rollout) => rollout.problem !== null).length;
  const passed = rewards.filter((reward) => reward >= threshold).length;
  const stats = taskStats(index.rollouts, threshold);
  const pageCount = Math.max(1, Math.ceil(stats.tasks.length / props.tasksPerPage));
  const page = Math.min(props.taskPage, pageCount);
  const shownTasks = stats.tasks.slice((page - 1) * props.tasksPerPage, page * props.tasksPerPage);
  const card = (label: string, value: string, href?: string) => (
    <div class="card">
      <div class="value">{href === undefined ? value : <a href={href}>{value}</a>}</div>
      <div class="label">{label}</div>
    </div>
  );
  return (
    <Layout title="Overview" file={index.path}>
      <h1>Overview</h1>
      <div class="cards">
        {card('rollouts', String(index.size), '/rollouts')}
        {card('tasks', String(stats.tasks.length))}
        {card('mean reward', rewards.length > 0 ? formatNumber(rewards.reduce((sum, reward) => sum + reward, 0) / rewards.length) : '–')}
        {card(`passed (reward ≥ ${formatNumber(threshold)})`, rewards.length > 0 ? percent(passed / rewards.length) : '–', `/rollouts${queryString({ outcome: 'pass' })}`)}
        {card('invalid lines', String(invalid), invalid > 0 ? `/rollouts${queryString({ outcome: 'invalid' })}` : undefined)}
        {[...stats.overall.entries()].map(([k, value]) => card(`pass@${k} (mean over tasks)`, percent(value)))}
      </div>
      <h2>Reward histogram</h2>
      {rewards.length === 0 ? <p class="muted">No rewards in this file.</p> : <Histogram bins={rewardHistogram(rewards)} />}
      <h2>Tasks ({stats.tasks.length})</h2>
      <p class="muted">
        pass@k is the unbiased estimate 1 − C(n−c, k)/C(n, k) over a task's n rollouts, c of them with reward ≥ {formatNumber(threshold)}{' '}
        (change with <code>?threshold=</code>).
      </p>
      <TaskTable tasks={shownTasks} ks={stats.ks} threshold={threshold} />
      {pageCount > 1 ? (
        <div class="pager">
          {page > 1 ? <a href={`/${queryString({ task_page: page - 1, threshold })}#tasks`}>← previous</a> : null}
          <span>
            page {page} of {pageCount}
          </span>
          {page < pageCount ? <a href={`/${queryString({ task_page: page + 1, threshold })}#tasks`}>next →</a> : null}
        </div>
      ) : null}
      <h2>Aggregate metrics</h2>
      <MetricsTable metrics={index.metrics.aggregate()} />
    </Layout>
  );
}

export interface ListState {
  /** The filter parameters as given (kept in every link). */
  parameters: Record<string, string | undefined>;
  rows: RolloutSummary[];
  total: number;
  page: number;
  pageCount: number;
  agents: string[];
  threshold: number;
}

export function RolloutsPage(props: { index: RolloutIndex; state: ListState }) {
  const { state } = props;
  const parameters = state.parameters;
  const keep = (overrides: Record<string, string | number | undefined>) => queryString({ ...parameters, ...overrides });
  return (
    <Layout title="Rollouts" file={props.index.path}>
      <h1>
        Rollouts <span class="muted" id="match-count">{state.total} of {props.index.size}</span>
      </h1>
      <form class="filters" method="get" action="/rollouts">
        <label>
          reward ≥<input type="number" step="any" name="reward_min" value={parameters.reward_min ?? ''} />
        </label>
        <label>
          reward ≤<input type="number" step="any" name="reward_max" value={parameters.reward_max ?? ''} />
        </label>
        <label>
          outcome
          <select name="outcome">
            {[
              ['', 'any'],
              ['pass', `pass (≥ ${formatNumber(state.threshold)})`],
              ['fail', 'fail'],
              ['invalid', 'invalid lines'],
            ].map(([value, label]) => (
              <option value={value} selected={(parameters.outcome ?? '') === value}>
                {label}
              </option>
            ))}
          </select>
        </label>
        <label>
          agent
          <select name="agent">
            <option value="">any</option>
            {state.agents.map((agent) => (
              <option value={agent} selected={parameters.agent === agent}>
                {agent}
              </option>
            ))}
          </select>
        </label>
        <label>
          task
          <input type="text" name="task" value={parameters.task ?? ''} placeholder="task key" />
        </label>
        <label>
          text
          <input type="search" name="q" value={parameters.q ?? ''} placeholder="in prompt or answer" />
        </label>
        {parameters.reward_below !== undefined ? <input type="hidden" name="reward_below" value={parameters.reward_below} /> : null}
        {parameters.threshold !== undefined ? <input type="hidden" name="threshold" value={parameters.threshold} /> : null}
        <button type="submit">Filter</button>
        <a href="/rollouts">clear</a>
      </form>
      <table id="rollouts">
        <thead>
          <tr>
            <th class="num">#</th>
            <th class="num">line</th>
            <th>reward</th>
            <th>task</th>
            <th>agent</th>
            <th>prompt</th>
            <th>answer</th>
            <th class="num">tool calls</th>
          </tr>
        </thead>
        <tbody>
          {state.rows.map((rollout) => (
            <tr data-index={String(rollout.index)}>
              <td class="num">
                <a href={`/rollouts/${rollout.index}${keep({ page: undefined })}`}>{rollout.index + 1}</a>
              </td>
              <td class="num">{rollout.line}</td>
              <td>
                <RewardBadge reward={rollout.reward} threshold={state.threshold} />
              </td>
              <td>
                <a href={`/rollouts${queryString({ task: rollout.taskKey })}`}>
                  {rollout.taskIndex !== null ? `#${rollout.taskIndex}` : rollout.taskKey}
                  {rollout.rolloutIndex !== null ? `.${rollout.rolloutIndex}` : ''}
                </a>
              </td>
              <td>{rollout.agent ?? <span class="muted">–</span>}</td>
              <td class="text">
                <a href={`/rollouts/${rollout.index}${keep({ page: undefined })}`}>{rollout.prompt || '(no user message)'}</a>
              </td>
              <td class="text">{rollout.problem !== null ? <span class="problem">{rollout.problem}</span> : rollout.answer}</td>
              <td class="num">{rollout.toolCalls}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {state.rows.length === 0 ? <p class="muted">No rollout matches these filters.</p> : null}
      <div class="pager">
        {state.page > 1 ? <a href={`/rollouts${keep({ page: state.page - 1 })}`}>← previous</a> : null}
        <span>
          page {state.page} of {state.pageCount}
        </span>
        {state.page < state.pageCount ? <a href={`/rollouts${keep({ page: state.page + 1 })}`}>next →</a> : null}
      </div>
    </Layout>
  );
}
