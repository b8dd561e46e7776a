import { DescribeAlarmsCommand, type CloudWatchClient } from '@aws-sdk/client-cloudwatch';
import type { AlarmStates } from '../../release/bake.js';

/** Alarm states through CloudWatch's DescribeAlarms, by name (at most 100 names per call, which a deploy never nears). */
export class CloudWatchAlarmStates implements AlarmStates {
  constructor(private readonly client: CloudWatchClient) {}

  async states(names: readonly string[]): Promise<ReadonlyMap<string, string>> {
    const out = await this.client.send(new DescribeAlarmsCommand({ AlarmNames: [...names], AlarmTypes: ['MetricAlarm'] }));
    return new Map((out.MetricAlarms ?? []).map((a) => [a.AlarmName ?? '', a.StateValue ?? '']));
  }
}
