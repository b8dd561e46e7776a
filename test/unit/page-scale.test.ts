import { niceScale } from '../../web/src/chart.js';

/** The charts' scale (web/src/chart.ts): round ticks between 0 and a rounded top, readable for a kind of three memories. */

test.each([
  [0, { top: 1, ticks: [0, 1] }],
  [3, { top: 3, ticks: [0, 1, 2, 3] }],
  [5, { top: 6, ticks: [0, 2, 4, 6] }],
  [7, { top: 8, ticks: [0, 2, 4, 6, 8] }],
  [12, { top: 15, ticks: [0, 5, 10, 15] }],
  [40, { top: 40, ticks: [0, 10, 20, 30, 40] }],
  [500, { top: 600, ticks: [0, 200, 400, 600] }],
])('counts up to %i read on %j', (most, scale) => {
  expect(niceScale(most)).toEqual(scale);
});

test('every scale has a tick past 0, its top at or above the most, and at most five steps', () => {
  for (let most = 0; most <= 2000; most += 1) {
    const { top, ticks } = niceScale(most);
    expect([ticks.length >= 2, top >= most, ticks.length <= 6, ticks.at(-1) === top]).toEqual([true, true, true, true]);
  }
});
