import { type AlarmStates, bake } from '../../lambda/release/bake.js';

/** A clock that moves only when the bake sleeps, and alarm states scripted per look. */
function scripted(looks: Record<string, string>[]) {
  let now = 0;
  let look = 0;
  const reader: AlarmStates = {
    states: async () => new Map(Object.entries(looks[Math.min(look++, looks.length - 1)] ?? {})),
  };
  const options = {
    forMs: 10 * 60_000,
    everyMs: 30_000,
    now: () => now,
    sleep: async (ms: number) => {
      now += ms;
    },
  };
  return { reader, options };
}

const quiet = { errors: 'OK', internal: 'INSUFFICIENT_DATA' };

test('quiet alarms for the whole bake: it passes after looking every 30 s for 10 minutes', async () => {
  const { reader, options } = scripted([quiet]);

  expect(await bake(['errors', 'internal'], reader, options)).toEqual({ ok: true, firing: [], looks: 21 });
});

test('an alarm that goes to ALARM half way ends the bake at once, naming it', async () => {
  const { reader, options } = scripted([...Array(10).fill(quiet), { errors: 'ALARM', internal: 'OK' }]);

  expect(await bake(['errors', 'internal'], reader, options)).toEqual({ ok: false, firing: ['errors'], looks: 11 });
});

test('an alarm CloudWatch does not know judges nothing, which is not a pass', async () => {
  const { reader, options } = scripted([{ errors: 'OK' }]);

  expect(await bake(['errors', 'internal'], reader, options)).toEqual({ ok: false, firing: ['internal'], looks: 1 });
});

test('a bake of no time still looks once', async () => {
  const { reader, options } = scripted([{ errors: 'ALARM' }]);

  expect(await bake(['errors'], reader, { ...options, forMs: 0 })).toEqual({ ok: false, firing: ['errors'], looks: 1 });
});
