import { encodeMemories, judgeUserMessage, parseVerdict } from '../../lambda/adapters/judge-protocol.js';
import { HOSTILE, NOT_VERDICTS, dataBlock } from '../providers/support/judge-cases.js';

test.each([
  ['same', 'same'],
  ['different', 'different'],
  ['contradicts', 'contradicts'],
  [' \ncontradicts\n ', 'contradicts'],
])('%j is the verdict %s', (answer, verdict) => {
  expect(parseVerdict(answer)).toBe(verdict);
});

test.each([...NOT_VERDICTS, 'contradict', 'differs', 'same same'])('%j is not a verdict', (answer) => {
  expect(parseVerdict(answer)).toBeUndefined();
});

test('the encoded memories contain no character that could open or close a tag', () => {
  const encoded = encodeMemories(HOSTILE.stored, HOSTILE.incoming);

  expect(encoded).not.toMatch(/[<>&]/);
  expect(JSON.parse(encoded)).toEqual({ stored: HOSTILE.stored, new: HOSTILE.incoming });
});

test('non-ASCII content travels as itself, so the model reads French and accents as written', () => {
  const message = judgeUserMessage('Le siège est à Ouagadougou.', 'Le siège n’est pas à Ouagadougou.');

  expect(message).toContain('Le siège est à Ouagadougou.');
  expect(dataBlock(message)).toEqual({ stored: 'Le siège est à Ouagadougou.', new: 'Le siège n’est pas à Ouagadougou.' });
});
