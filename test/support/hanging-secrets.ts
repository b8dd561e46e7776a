import { type AwsStandIn, secretsAnswer, startAwsStandIn } from './aws-stand-in.js';

/**
 * A Secrets Manager stand-in over real HTTP that can hang: while hung it holds every request
 * without an answer; once recovered it answers the held ones (late, as a brownout ends) and every
 * later one at once. The secrets are read at each answer, so a test can change a value.
 */
export interface HangingSecrets {
  readonly standIn: AwsStandIn;
  readonly secrets: Record<string, string>;
  hang(): void;
  recover(): void;
  /** GetSecretValue calls received so far. */
  reads(): number;
  close(): Promise<void>;
}

export async function startHangingSecrets(secrets: Record<string, string>): Promise<HangingSecrets> {
  let hung = false;
  const held: (() => void)[] = [];
  const answer = secretsAnswer(secrets);
  const standIn = await startAwsStandIn(async (request) => {
    if (hung) await new Promise<void>((resolve) => held.push(resolve));
    return answer(request);
  });
  const release = () => {
    for (const resume of held.splice(0)) resume();
  };
  return {
    standIn,
    secrets,
    hang: () => {
      hung = true;
    },
    recover: () => {
      hung = false;
      release();
    },
    reads: () => standIn.requests.filter((r) => r.target === 'secretsmanager.GetSecretValue').length,
    close: async () => {
      hung = false;
      release();
      await standIn.close();
    },
  };
}
