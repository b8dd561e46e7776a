import { sessionOptions, withSessionOptions } from '../../lambda/adapters/pg/pg-client.js';

test('CockroachDB sessions force custom plans, so recall always plans with its query terms as constants', () => {
  expect(sessionOptions('cockroach', 5000)).toBe(
    '-c statement_timeout=5000 -c default_transaction_isolation=serializable -c enable_multiple_modifications_of_table=on -c plan_cache_mode=force_custom_plan -c application_name=naaba',
  );
  expect(sessionOptions('postgres', 5000)).not.toContain('plan_cache_mode');
});

test('the options travel in the URL, ahead of any the operator gave', () => {
  const { connectionString } = withSessionOptions(
    'postgresql://u@db:26257/naaba?options=-c%20x%3D1',
    sessionOptions('cockroach', 10),
  );
  expect(new URL(connectionString).searchParams.get('options')).toMatch(/plan_cache_mode=force_custom_plan .*-c x=1$/);
});
