import type { Stage } from 'aws-cdk-lib/aws-apigateway';
import {
  type Alarm,
  AlarmStatusWidget,
  Dashboard,
  GraphWidget,
  type GraphWidgetProps,
  type IWidget,
  Stats,
} from 'aws-cdk-lib/aws-cloudwatch';
import { Construct } from 'constructs';
import {
  callsOf,
  judgeUnavailableRate,
  OUTCOMES,
  PERIOD,
  SECURITY_EVENTS,
  securityEvents,
  TOOLS,
  toolCalls,
} from './naaba-metrics.js';
import type { NaabaFunction } from './naaba-function.js';

export interface RegionDashboardProps {
  readonly dashboardName: string;
  readonly functions: Readonly<Record<string, NaabaFunction>>;
  readonly stage: Stage;
  readonly alarms: readonly Alarm[];
  readonly judgeUnavailableRate: number;
  /** The security-event alarm's threshold, drawn on its graph. */
  readonly securityEvents: number;
}

/**
 * One region at a glance: the alarms, tool calls by outcome (all tools, then each tool), the API's
 * traffic, errors and latency, each function's errors, throttles and duration, the judge's
 * unavailable rate against its alarm threshold, and security events by kind.
 */
export class RegionDashboard extends Construct {
  readonly dashboard: Dashboard;

  constructor(scope: Construct, id: string, props: RegionDashboardProps) {
    super(scope, id);
    const functions = Object.entries(props.functions);
    const graph = (title: string, left: GraphWidgetProps['left'], extra: GraphWidgetProps = {}) =>
      new GraphWidget({ title, left, width: 8, height: 6, period: PERIOD, ...extra });
    const { stage } = props;
    const rows: IWidget[][] = [
      [new AlarmStatusWidget({ title: 'Alarms', alarms: [...props.alarms], width: 24, height: 3 })],
      [
        graph('Tool calls by outcome', OUTCOMES.map(toolCalls), { stacked: true }),
        ...TOOLS.slice(0, 2).map((tool) =>
          graph(
            `${tool} by outcome`,
            OUTCOMES.map((o) => callsOf(tool, o)),
            { stacked: true },
          ),
        ),
      ],
      [
        ...TOOLS.slice(2).map((tool) =>
          graph(
            `${tool} by outcome`,
            OUTCOMES.map((o) => callsOf(tool, o)),
            { stacked: true },
          ),
        ),
        graph('Judge unavailable rate', [judgeUnavailableRate()], {
          leftYAxis: { min: 0, max: 1 },
          leftAnnotations: [{ value: props.judgeUnavailableRate, label: 'alarm' }],
        }),
      ],
      [
        graph('API requests and errors', [
          stage.metricCount({ statistic: Stats.SUM, label: 'requests' }),
          stage.metricClientError({ statistic: Stats.SUM, label: '4xx' }),
          stage.metricServerError({ statistic: Stats.SUM, label: '5xx' }),
        ]),
        graph('API latency (ms)', [
          stage.metricLatency({ statistic: Stats.p(50), label: 'p50' }),
          stage.metricLatency({ statistic: Stats.p(99), label: 'p99' }),
          stage.metricIntegrationLatency({ statistic: Stats.p(99), label: 'integration p99' }),
        ]),
        graph(
          'Function duration p99 (ms)',
          functions.map(([name, fn]) => fn.function.metricDuration({ statistic: Stats.p(99), label: name })),
        ),
      ],
      [
        graph(
          'Function errors',
          functions.map(([name, fn]) => fn.function.metricErrors({ statistic: Stats.SUM, label: name })),
        ),
        graph(
          'Function throttles',
          functions.map(([name, fn]) => fn.function.metricThrottles({ statistic: Stats.SUM, label: name })),
        ),
        graph(
          'Function invocations',
          functions.map(([name, fn]) => fn.function.metricInvocations({ statistic: Stats.SUM, label: name })),
        ),
      ],
      [
        graph('Security events by kind', SECURITY_EVENTS.map(securityEvents), {
          stacked: true,
          width: 24,
          leftAnnotations: [{ value: props.securityEvents, label: 'alarm (all kinds)' }],
        }),
      ],
    ];
    this.dashboard = new Dashboard(this, 'Dashboard', { dashboardName: props.dashboardName, widgets: rows });
  }
}
