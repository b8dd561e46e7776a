import { EmbeddingInputError } from '../../lambda/adapters/bedrock/titan-embedder.js';
import { ProviderCallError, toEmbedderError } from '../../lambda/adapters/provider-call.js';
import {
  EmbedderError,
  EmbeddingDimensionError,
  InvalidInputError,
  KindFullError,
  MemoryError,
  PinLimitError,
  ResponseTooLargeError,
  StoreBusyError,
  UnknownKindError,
} from '../../lambda/memory/errors.js';
import { type CallOutcome, outcomeOf } from '../../lambda/memory/outcome.js';

const denied = Object.assign(new Error('User is not authorized'), {
  name: 'AccessDeniedException',
  $metadata: { httpStatusCode: 403 },
});

test.each<[string, CallOutcome, unknown]>([
  ['InvalidInputError', 'bad_input', new InvalidInputError('limit must be 1 to 50')],
  ['UnknownKindError', 'bad_input', new UnknownKindError('nope', ['fact'])],
  ['PinLimitError', 'bad_input', new PinLimitError(20)],
  ['KindFullError', 'bad_input', new KindFullError('fact', 10)],
  ['ResponseTooLargeError', 'bad_input', new ResponseTooLargeError('recall', 9, 8)],
  ["Titan's input limits", 'bad_input', new EmbeddingInputError('too long')],
  [
    'a Bedrock 403 as the embedder reports it',
    'embedder_unavailable',
    toEmbedderError(new ProviderCallError('Bedrock InvokeModel', { reason: 'rejected', retryable: false }, 1, { cause: denied })),
  ],
  [
    'an embedder timeout',
    'embedder_unavailable',
    toEmbedderError(new ProviderCallError('x', { reason: 'timeout', retryable: false }, 1)),
  ],
  ['EmbeddingDimensionError', 'embedder_unavailable', new EmbeddingDimensionError(256, 512, 'here')],
  ['EmbedderError', 'embedder_unavailable', new EmbedderError('the embedder returned a non-finite value')],
  ['StoreBusyError', 'store_busy', new StoreBusyError(5)],
  ['the merge target kept disappearing (retryable)', 'store_busy', new MemoryError('kept disappearing', { retryable: true })],
  ['a MemoryError not marked safe', 'internal', new MemoryError('internal detail', { expose: false })],
  ['a driver error', 'internal', Object.assign(new Error('invalid input syntax'), { code: '22P02' })],
  ['a TypeError', 'internal', new TypeError('x is undefined')],
  ['a thrown string', 'internal', 'boom'],
])('%s → %s', (_case, expected, error) => {
  expect(outcomeOf(error)).toBe(expected);
});
