import {
  GetDeploymentCommand,
  PutLifecycleEventHookExecutionStatusCommand,
  type CodeDeployClient,
} from '@aws-sdk/client-codedeploy';

/** The event CodeDeploy invokes a lifecycle hook with. */
export interface HookEvent {
  readonly DeploymentId: string;
  readonly LifecycleEventHookExecutionId: string;
}

/** What a lifecycle hook tells CodeDeploy, and what it may ask about its deployment. */
export class CodeDeployHooks {
  constructor(private readonly client: CodeDeployClient) {}

  /** The hook's verdict: Failed rolls the deployment back. */
  async report(event: HookEvent, status: 'Succeeded' | 'Failed'): Promise<void> {
    await this.client.send(
      new PutLifecycleEventHookExecutionStatusCommand({
        deploymentId: event.DeploymentId,
        lifecycleEventHookExecutionId: event.LifecycleEventHookExecutionId,
        status,
      }),
    );
  }

  /** The deployment group a deployment belongs to. */
  async groupOf(deploymentId: string): Promise<string | undefined> {
    const out = await this.client.send(new GetDeploymentCommand({ deploymentId }));
    return out.deploymentInfo?.deploymentGroupName;
  }
}
