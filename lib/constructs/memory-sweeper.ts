import { Duration } from 'aws-cdk-lib';
import { Alarm, ComparisonOperator, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { NaabaFunction } from './naaba-function.js';
import type { PrivateNetwork } from './private-network.js';

export interface MemorySweeperProps {
  readonly naabaRegion: string;
  readonly logLevel: string;
  readonly logRetentionDays: number;
  /** An EventBridge expression: `rate(1 hour)`, `cron(0 3 * * ? *)`. */
  readonly schedule: string;
  readonly retryAttempts: number;
  readonly maxEventAgeHours: number;
  readonly batchSize: number;
  readonly maxBatches: number;
  readonly network?: PrivateNetwork | undefined;
}

/**
 * The scheduled sweeper: an EventBridge rule invokes the function, which deletes expired memories
 * and trims the journal in bounded batches. Both hops retry, then park the event in one
 * dead-letter queue with an alarm on it: EventBridge for a failed delivery, Lambda for a run that
 * kept failing (the message then carries the error code and message as attributes).
 */
export class MemorySweeper extends Construct {
  readonly function: NaabaFunction;
  readonly deadLetters: Queue;
  readonly rule: Rule;
  readonly alarm: Alarm;

  constructor(scope: Construct, id: string, props: MemorySweeperProps) {
    super(scope, id);
    const maxEventAge = Duration.hours(props.maxEventAgeHours);
    this.deadLetters = new Queue(this, 'DeadLetters', {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: Duration.days(14),
    });
    this.function = new NaabaFunction(this, 'Function', {
      entry: 'sweeper',
      description: 'naaba sweeper: deletes expired memories and trims the journal of its region',
      memorySize: 512,
      timeout: Duration.minutes(5),
      naabaRegion: props.naabaRegion,
      logLevel: props.logLevel,
      logRetentionDays: props.logRetentionDays,
      network: props.network,
      asyncFailures: { queue: this.deadLetters, retryAttempts: props.retryAttempts, maxEventAge },
    });
    this.function.addEnvironment('NAABA_SWEEP_BATCH', String(props.batchSize));
    this.function.addEnvironment('NAABA_SWEEP_MAX_BATCHES', String(props.maxBatches));
    this.rule = new Rule(this, 'Schedule', {
      description: 'Runs the naaba sweeper',
      schedule: Schedule.expression(props.schedule),
      targets: [
        new LambdaFunction(this.function.function, {
          deadLetterQueue: this.deadLetters,
          retryAttempts: props.retryAttempts,
          maxEventAge,
        }),
      ],
    });
    // Its SNS action is added with the region's other alarms (RegionAlarms).
    this.alarm = new Alarm(this, 'DeadLettersAlarm', {
      alarmDescription:
        'A naaba sweep failed after its retries; its event is in the dead-letter queue (docs/runbook.md, "SweeperDeadLetters")',
      metric: this.deadLetters.metricApproximateNumberOfMessagesVisible({ period: Duration.minutes(5) }),
      threshold: 0,
      comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods: 1,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });
  }
}
