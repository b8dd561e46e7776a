import { readFileSync } from 'node:fs';
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { addRegionStacks } from '../../lib/naaba-app.js';
import type { RegionStack } from '../../lib/region-stack.js';

/** The context of the committed cdk.json: the tests check the configuration that ships. */
export const CDK_CONTEXT = (
  JSON.parse(readFileSync(new URL('../../cdk.json', import.meta.url), 'utf8')) as { context: Record<string, unknown> }
).context;

/** The regions of cdk.json, one stack each. */
export const REGIONS = Object.keys(CDK_CONTEXT['naaba:regions'] as Record<string, unknown>);

/**
 * cdk.json's feature flag that checks every synthesized template against CloudFormation's rules.
 * Its engine (WebAssembly) costs about 6 s of CPU to start in each test file, and runs at every
 * synthesis even with the flag off (its findings then become warnings) unless the app is built
 * without it. So the tests that read templates build the app without the engine; nag.test.ts
 * synthesizes every shape of the app with the flag on, and deploy-config.test.ts synthesizes
 * bin/app.ts with cdk.json as committed.
 */
export const RULE_VALIDATION = '@aws-cdk/core:validateAgainstDefaultRules';

/** The app as `cdk synth` builds it, with bundling off (a real bundle is built once, in CI) and, unless asked, no rule validation. */
export function buildApp(overrides: Record<string, unknown> = {}): { app: App; stacks: RegionStack[] } {
  const context = { ...CDK_CONTEXT, [RULE_VALIDATION]: false, ...overrides, 'aws:cdk:bundling-stacks': [] };
  const app = new App({ context, builtinCloudFormationValidation: context[RULE_VALIDATION] === true });
  return { app, stacks: addRegionStacks(app) };
}

/** The first region's stack and its template, for tests about one stack. */
export function firstStack(overrides: Record<string, unknown> = {}): { stack: RegionStack; template: Template } {
  const [stack] = buildApp(overrides).stacks;
  if (!stack) throw new Error('cdk.json names no region');
  return { stack, template: Template.fromStack(stack) };
}

/** A PrivateLink endpoint service name of this region, as a database provider would give it. */
export const endpointService = (region: string) => `com.amazonaws.vpce.${region}.vpce-svc-0123456789abcdef0`;
/** A VPC of the operator's, with two private subnets in the first region of cdk.json. */
export const GIVEN_VPC = {
  vpcId: 'vpc-0123456789abcdef0',
  subnets: [
    { subnetId: 'subnet-0123456789abcdef0', availabilityZone: `${REGIONS[0]}a` },
    { subnetId: 'subnet-0123456789abcdef1', availabilityZone: `${REGIONS[0]}b` },
  ],
};

/** `naaba:network` in mode vpc for every region of cdk.json; the first region may get a given VPC. */
export function vpcContext(first: Record<string, unknown> = {}): Record<string, unknown> {
  const regions = Object.fromEntries(
    REGIONS.map((r, i) => [r, { databaseEndpointService: endpointService(r), ...(i === 0 ? first : {}) }]),
  );
  return { 'naaba:network': { mode: 'vpc', regions } };
}

export type Json = string | number | boolean | null | Json[] | { [key: string]: Json };

/**
 * A template value with CloudFormation's intrinsics flattened to readable strings:
 * `{Ref: X}` → `${X}`, `{Fn::GetAtt: [X, Arn]}` → `${X.Arn}`, `Fn::Join` concatenated.
 */
export function flat(value: Json): Json {
  if (Array.isArray(value)) return value.map(flat);
  if (value === null || typeof value !== 'object') return value;
  const ref = value.Ref;
  if (typeof ref === 'string') return `\${${ref}}`;
  const getAtt = value['Fn::GetAtt'];
  if (Array.isArray(getAtt)) return `\${${getAtt.join('.')}}`;
  const join = value['Fn::Join'];
  if (Array.isArray(join) && typeof join[0] === 'string' && Array.isArray(join[1])) {
    return join[1].map((part) => String(flat(part))).join(join[0]);
  }
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, flat(v)]));
}

export interface Statement {
  readonly Sid?: string;
  readonly Effect: string;
  readonly Action: string | string[];
  readonly Resource: Json;
  readonly Condition?: Json;
}

/** Logical id of the one resource of this type whose properties match `where`. */
export function logicalId(template: Template, type: string, where: Record<string, unknown> = {}): string {
  const found = Object.keys(template.findResources(type, { Properties: where }));
  if (found.length !== 1) throw new Error(`expected one ${type} matching ${JSON.stringify(where)}, found ${found.length}`);
  return found[0] as string;
}

/** The logical id of the function built from this entry (its description names it). */
export function functionId(template: Template, description: RegExp): string {
  const functions = template.findResources('AWS::Lambda::Function');
  const ids = Object.keys(functions).filter((id) => description.test(String(functions[id]?.Properties?.Description)));
  if (ids.length !== 1) throw new Error(`expected one function described ${description}, found ${ids.length}`);
  return ids[0] as string;
}

/** Every statement of every identity policy attached to the role of this function, flattened. */
export function roleStatements(template: Template, fnId: string): Statement[] {
  const fn = template.toJSON().Resources[fnId] as { Properties: { Role: { 'Fn::GetAtt': [string, string] } } };
  const roleId = fn.Properties.Role['Fn::GetAtt'][0];
  const policies = template.findResources('AWS::IAM::Policy');
  return Object.values(policies)
    .filter((p) => (p.Properties.Roles as { Ref: string }[]).some((r) => r.Ref === roleId))
    .flatMap((p) => flat(p.Properties.PolicyDocument.Statement as Json) as unknown as Statement[]);
}

/** The managed policies attached to the role of this function, flattened. */
export function managedPolicies(template: Template, fnId: string): Json[] {
  const fn = template.toJSON().Resources[fnId] as { Properties: { Role: { 'Fn::GetAtt': [string, string] } } };
  const role = template.toJSON().Resources[fn.Properties.Role['Fn::GetAtt'][0]] as { Properties: { ManagedPolicyArns?: Json[] } };
  return (role.Properties.ManagedPolicyArns ?? []).map(flat);
}

/** A function's configured timeout, in ms. */
export function timeoutOf(template: Template, fnId: string): number {
  const fn = template.toJSON().Resources[fnId] as { Properties: { Timeout?: number } };
  const seconds = fn.Properties.Timeout;
  if (seconds === undefined) throw new Error(`function ${fnId} has no timeout set`);
  return seconds * 1000;
}

/** A function's environment variables. */
export function environmentOf(template: Template, fnId: string): Record<string, string> {
  const fn = template.toJSON().Resources[fnId] as { Properties: { Environment?: { Variables?: Record<string, string> } } };
  return fn.Properties.Environment?.Variables ?? {};
}

/** Each region of cdk.json with a custom domain and a certificate of its own region (decision 0054). */
export function domainContext(): Record<string, unknown> {
  const regions = CDK_CONTEXT['naaba:regions'] as Record<string, Record<string, unknown>>;
  return {
    'naaba:regions': Object.fromEntries(
      Object.entries(regions).map(([region, entry]) => [
        region,
        {
          ...entry,
          domain: {
            name: `memory-${region}.example.com`,
            certificateArn: `arn:aws:acm:${region}:123456789012:certificate/0123abcd-0123-4567-89ab-0123456789ab`,
          },
        },
      ]),
    ),
  };
}
