import { Aws, Duration, Validations } from 'aws-cdk-lib';
import { Certificate } from 'aws-cdk-lib/aws-certificatemanager';
import {
  AccessLogFormat,
  ApiKeySourceType,
  AuthorizationType,
  EndpointType,
  IdentitySource,
  LambdaIntegration,
  type DomainName,
  LogGroupLogDestination,
  type Method,
  type Resource,
  ResponseType,
  RestApi,
  SecurityPolicy,
  TokenAuthorizer,
} from 'aws-cdk-lib/aws-apigateway';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { WebFirewall } from './web-firewall.js';
import { ApiGatewayAccountRole } from './api-account-role.js';
import { KeyThrottle } from './key-throttle.js';

/**
 * API Gateway's own answers when it refuses a request before the MCP function sees it. They
 * mirror `GATEWAY_RESPONSES` of lambda/http/api-gateway.ts; test/infra keeps the two in step.
 */
export const GATEWAY_REFUSALS = {
  unauthorized: {
    status: 401,
    /** `$resourceMetadata` becomes the URL of the protected resource metadata (RFC 9728 §5.1). */
    headers: { 'WWW-Authenticate': 'Bearer resource_metadata="$resourceMetadata", scope="memory"' },
    body: '{"message":"missing, malformed, unknown, expired or revoked bearer token; OAuth clients: see WWW-Authenticate"}',
  },
  accessDenied: {
    status: 403,
    headers: {},
    body: '{"message":"this key belongs to region $context.authorizer.keyRegion; call that region\'s endpoint"}',
  },
  /** REST APIs answer unknown routes with 403 "Missing Authentication Token"; a 404 says what is wrong. */
  unknownRoute: { status: 404, headers: {}, body: '{"message":"not found; the MCP endpoint is POST /mcp"}' },
  /** The authorizer threw or timed out (e.g. the database is down): API Gateway's default would be a bare 500. */
  authorizerFailure: {
    status: 503,
    headers: { 'Retry-After': '5' },
    body: '{"message":"the endpoint cannot check keys right now; retry in a few seconds"}',
  },
} as const;

/**
 * A throttled request (the stage's limits or a key bucket's): API Gateway's own 429, with the
 * Retry-After its token buckets make true (they refill every second). Stack-only: the local server
 * has no throttle of its own to imitate.
 */
export const THROTTLED = {
  status: 429,
  headers: { 'Retry-After': '1' },
  body: '{"message":"too many requests for this key or this endpoint; retry in a second"}',
} as const;

/** A bearer value API Gateway passes to the authorizer; anything else is a 401 without an invocation. */
export const BEARER_PATTERN = '^[Bb][Ee][Aa][Rr][Ee][Rr] nba?_[A-Za-z0-9_-]{43}$';

/** Where OAuth clients read how to sign in to `/mcp`, under the base URL (lambda/http/api-gateway.ts). */
export const RESOURCE_METADATA_PATH = '/.well-known/oauth-protected-resource/mcp';

/**
 * The OAuth routes (decision 0054), open: what they issue is bound to a key typed on the consent
 * page. `OPTIONS` reaches the function where browser-based clients call from other origins, which
 * answers the preflight (decision 0067); the consent page is a navigation and has none.
 */
export const OAUTH_ROUTES: readonly (readonly [string, readonly string[]])[] = [
  ['/.well-known/oauth-protected-resource', ['GET', 'OPTIONS']],
  [RESOURCE_METADATA_PATH, ['GET', 'OPTIONS']],
  ['/.well-known/oauth-authorization-server', ['GET', 'OPTIONS']],
  ['/oauth/register', ['POST', 'OPTIONS']],
  ['/oauth/authorize', ['GET', 'POST']],
  ['/oauth/token', ['POST', 'OPTIONS']],
  ['/oauth/revoke', ['POST', 'OPTIONS']],
];

/** The access log line: who called what and how it ended, never a header, a body or a token. */
const ACCESS_LOG_FIELDS = {
  requestId: '$context.requestId',
  time: '$context.requestTime',
  ip: '$context.identity.sourceIp',
  userAgent: '$context.identity.userAgent',
  method: '$context.httpMethod',
  path: '$context.resourcePath',
  status: '$context.status',
  errorType: '$context.error.responseType',
  latencyMs: '$context.responseLatency',
  responseLength: '$context.responseLength',
  authorizerStatus: '$context.authorizer.status',
  authorizerLatencyMs: '$context.authorizer.latency',
  authorizerError: '$context.authorizer.error',
  principalId: '$context.authorizer.principalId',
  integrationStatus: '$context.integrationStatus',
  integrationLatencyMs: '$context.integrationLatency',
};

export interface McpApiProps {
  readonly mcpFunction: IFunction;
  readonly authorizerFunction: IFunction;
  readonly stageName: string;
  readonly rateLimit: number;
  readonly burstLimit: number;
  readonly healthzRateLimit: number;
  readonly healthzBurstLimit: number;
  /** How long API Gateway reuses an authorizer answer per token: the revocation delay (docs/decisions/0021). */
  readonly authorizerCacheSeconds: number;
  readonly logRetentionDays: number;
  /** `create`: this stack sets the region's API Gateway CloudWatch role; `existing`: the account already has one. */
  readonly accountRole: 'create' | 'existing';
  /** A custom domain mapped at its root (decision 0054), or undefined for the execute-api URL. */
  readonly domain?: { readonly name: string; readonly certificateArn: string } | undefined;
  /** Throttle per key bucket (decision 0070). */
  readonly keyRateLimit: number;
  readonly keyBurstLimit: number;
  readonly keyBuckets: number;
  /** The optional per-address WAF rule (decision 0070). */
  readonly waf: { readonly enabled: boolean; readonly requestsPerAddress: number; readonly windowSeconds: number };
}

/**
 * The regional REST API: `POST /mcp` behind the TOKEN authorizer; `GET /healthz`, and `GET` and
 * `DELETE /mcp` (answered 405 by the function), open. Throttled per stage and tighter on the open
 * health check; every request is access-logged; 401, 403 and a failed authorizer's 503 carry
 * naaba's bodies and headers.
 */
export class McpApi extends Construct {
  readonly api: RestApi;
  readonly authorizer: TokenAuthorizer;
  readonly accessLogs: LogGroup;
  /** The account setting this stack made, when it made it. */
  readonly accountRole: ApiGatewayAccountRole | undefined;
  /** The MCP endpoint URL clients are given. */
  readonly mcpUrl: string;
  /** The public base URL, without a trailing slash: the OAuth issuer, the page's home. */
  readonly baseUrl: string;
  readonly domain: DomainName | undefined;
  /** The usage plan that throttles each key bucket. */
  readonly keyThrottle: KeyThrottle;
  /** The web ACL (per-address rate limit, managed rule groups), unless `naaba:waf` turns it off. */
  readonly firewall: WebFirewall | undefined;

  constructor(scope: Construct, id: string, props: McpApiProps) {
    super(scope, id);
    this.accessLogs = new LogGroup(this, 'AccessLogs', { retention: props.logRetentionDays as RetentionDays });
    this.api = new RestApi(this, 'Api', {
      description: 'naaba: agent memory over MCP',
      endpointTypes: [EndpointType.REGIONAL],
      cloudWatchRole: false,
      // Usage plans count the key the authorizer names, never an x-api-key header a client sends.
      apiKeySourceType: ApiKeySourceType.AUTHORIZER,
      deployOptions: {
        stageName: props.stageName,
        // X-Ray from the edge: with the MCP function's active tracing, one trace per request end to end.
        tracingEnabled: true,
        accessLogDestination: new LogGroupLogDestination(this.accessLogs),
        accessLogFormat: AccessLogFormat.custom(JSON.stringify(ACCESS_LOG_FIELDS)),
        throttlingRateLimit: props.rateLimit,
        throttlingBurstLimit: props.burstLimit,
        methodOptions: {
          '/healthz/GET': { throttlingRateLimit: props.healthzRateLimit, throttlingBurstLimit: props.healthzBurstLimit },
          // Registration writes a row per call: the open health check's tight throttle, besides the hourly bound.
          '/oauth/register/POST': { throttlingRateLimit: props.healthzRateLimit, throttlingBurstLimit: props.healthzBurstLimit },
        },
      },
    });
    // Access logging needs the account's role before the stage is created.
    this.accountRole = props.accountRole === 'create' ? new ApiGatewayAccountRole(this, 'AccountRole') : undefined;
    if (this.accountRole) this.api.deploymentStage.node.addDependency(this.accountRole.account);
    this.authorizer = new TokenAuthorizer(this, 'Authorizer', {
      handler: props.authorizerFunction,
      identitySource: IdentitySource.header('Authorization'),
      validationRegex: BEARER_PATTERN,
      resultsCacheTtl: Duration.seconds(props.authorizerCacheSeconds),
    });
    this.domain = props.domain
      ? this.api.addDomainName('Domain', {
          domainName: props.domain.name,
          certificate: Certificate.fromCertificateArn(this, 'Certificate', props.domain.certificateArn),
          endpointType: EndpointType.REGIONAL,
          securityPolicy: SecurityPolicy.TLS_1_2,
        })
      : undefined;
    // Built from the API id and the stage's name, not the stage resource: the gateway responses
    // that carry it are part of the deployment the stage is made from.
    this.baseUrl = props.domain
      ? `https://${props.domain.name}`
      : `https://${this.api.restApiId}.execute-api.${Aws.REGION}.${Aws.URL_SUFFIX}/${props.stageName}`;
    this.addGatewayResponses();
    this.addRoutes(new LambdaIntegration(props.mcpFunction, { proxy: true, allowTestInvoke: false }));
    this.mcpUrl = `${this.baseUrl}/mcp`;
    this.keyThrottle = new KeyThrottle(this, 'KeyThrottle', {
      stage: this.api.deploymentStage,
      rateLimit: props.keyRateLimit,
      burstLimit: props.keyBurstLimit,
      buckets: props.keyBuckets,
    });
    this.firewall = props.waf.enabled
      ? new WebFirewall(this, 'Firewall', { stage: this.api.deploymentStage, ...props.waf })
      : undefined;
    this.acknowledgeApiFindings();
  }

  private addRoutes(integration: LambdaIntegration): void {
    const mcp = this.api.root.addResource('mcp');
    const keyed = { authorizer: this.authorizer, authorizationType: AuthorizationType.CUSTOM, apiKeyRequired: true };
    const post = mcp.addMethod('POST', integration, keyed);
    Validations.of(post).acknowledge({
      id: 'AwsSolutions-COG4',
      reason:
        'Callers are agents holding naaba API keys, not Cognito users; the Lambda TOKEN authorizer checks the key against the database.',
    });
    for (const verb of ['GET', 'DELETE']) {
      this.open(
        mcp.addMethod(verb, integration),
        `${verb} /mcp reaches the function only to be answered 405 (stateless MCP has no stream to open or session to end); it reads nothing.`,
      );
    }
    // The memory page: its files open (they hold no data), every data call behind the same authorizer as /mcp.
    const pageReason =
      'The memory page files (HTML, script, stylesheet) are static and hold no data; every data call they make goes to /api, behind the TOKEN authorizer.';
    this.open(this.api.root.addMethod('GET', integration), pageReason);
    for (const file of ['app.js', 'app.css'])
      this.open(this.api.root.addResource(file).addMethod('GET', integration), pageReason);
    const data = this.api.root.addResource('api').addResource('{proxy+}');
    const any = data.addMethod('ANY', integration, keyed);
    Validations.of(any).acknowledge({
      id: 'AwsSolutions-COG4',
      reason:
        'The memory page signs in with a naaba API key, checked by the same Lambda TOKEN authorizer as /mcp, not a Cognito user.',
    });
    this.addOAuthRoutes(integration);
    const healthz = this.api.root.addResource('healthz');
    this.open(
      healthz.addMethod('GET', integration),
      'The health check is open by design (DESIGN §8): it answers from the function alone, touching neither the database nor Bedrock, and has its own tight throttle.',
    );
  }

  private addOAuthRoutes(integration: LambdaIntegration): void {
    const reason =
      'OAuth discovery, registration, consent, token and revocation endpoints are open by the OAuth and MCP authorization specs; what they issue is bound to a naaba key the person types on the consent page, and registrations are bounded per hour (decision 0054).';
    for (const [path, verbs] of OAUTH_ROUTES) {
      const resource = path
        .split('/')
        .filter((part) => part !== '')
        .reduce<Resource | typeof this.api.root>(
          (parent, part) => parent.getResource(part) ?? parent.addResource(part),
          this.api.root,
        );
      for (const verb of verbs) {
        const method = resource.addMethod(verb, integration);
        // A preflight carries no credentials by design (CORS); cdk-nag's Cognito rule skips OPTIONS.
        if (verb === 'OPTIONS')
          Validations.of(method).acknowledge({
            id: 'AwsSolutions-APIG4',
            reason: `${reason} OPTIONS answers browsers' CORS preflights, which never carry credentials.`,
          });
        else this.open(method, reason);
      }
    }
  }

  /** An unauthenticated method, acknowledged next to itself. */
  private open(method: Method, reason: string): void {
    Validations.of(method).acknowledge({ id: 'AwsSolutions-APIG4', reason }, { id: 'AwsSolutions-COG4', reason });
  }

  private addGatewayResponses(): void {
    const responses = [
      [ResponseType.UNAUTHORIZED, GATEWAY_REFUSALS.unauthorized],
      [ResponseType.ACCESS_DENIED, GATEWAY_REFUSALS.accessDenied],
      [ResponseType.MISSING_AUTHENTICATION_TOKEN, GATEWAY_REFUSALS.unknownRoute],
      [ResponseType.AUTHORIZER_FAILURE, GATEWAY_REFUSALS.authorizerFailure],
      [ResponseType.AUTHORIZER_CONFIGURATION_ERROR, GATEWAY_REFUSALS.authorizerFailure],
      [ResponseType.THROTTLED, THROTTLED],
    ] as const;
    for (const [type, response] of responses) {
      this.api.addGatewayResponse(type.responseType, {
        type,
        statusCode: String(response.status),
        responseHeaders: Object.fromEntries(
          Object.entries(response.headers).map(([name, value]) => [
            name,
            `'${value.replace('$resourceMetadata', `${this.baseUrl}${RESOURCE_METADATA_PATH}`)}'`,
          ]),
        ),
        templates: { 'application/json': response.body },
      });
    }
  }

  private acknowledgeApiFindings(): void {
    Validations.of(this.api).acknowledge({
      id: 'AwsSolutions-APIG2',
      reason:
        'The MCP function validates every JSON-RPC body against the MCP schema and answers protocol errors the client understands; an API Gateway model would duplicate that schema and turn them into bare 400s.',
    });
    if (!this.firewall) {
      Validations.of(this.api.deploymentStage).acknowledge({
        id: 'AwsSolutions-APIG3',
        reason:
          'WAF is turned off in this configuration (naaba:waf.enabled false; it is on by default, decision 0094): every data route still needs a bearer key checked by the authorizer, the stage is throttled and each key bucket has its own usage-plan throttle (docs/deployment.md).',
      });
    }
    Validations.of(this.api.deploymentStage).acknowledge({
      id: 'AwsSolutions-APIG6',
      reason:
        'Access logs (AwsSolutions-APIG1) record every request with status, latencies and authorizer errors; execution logs add nothing an operator needs here, cost per request, and at INFO they record request headers, which carry the bearer token.',
    });
  }
}
