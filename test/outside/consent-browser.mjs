// A stand-in browser for MCP clients that open the consent page with $BROWSER (the MCP Inspector
// CLI does, through xdg-open): it opens the page, allows with the key in NAABA_CONSENT_KEY, and
// follows the redirect to the client's loopback callback. For checks on a machine without a
// desktop; a person uses a real browser. docs/oauth.md shows how it is run.
const [url] = process.argv.slice(2);
// biome-ignore lint/style/noProcessEnv: a standalone script outside lambda/, given the key by its caller
const key = process.env.NAABA_CONSENT_KEY ?? '';
const entities = { '&amp;': '&', '&lt;': '<', '&gt;': '>', '&quot;': '"', '&#39;': "'" };
const page = await fetch(url, { redirect: 'manual' });
const html = await page.text();
const cookie = page.headers.get('set-cookie')?.split(';')[0] ?? '';
const form = new URLSearchParams();
for (const [, name, value] of html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)" \/>/g)) {
  form.set(
    name,
    value.replace(/&(amp|lt|gt|quot|#39);/g, (e) => entities[e] ?? e),
  );
}
form.set('key', key);
form.set('decision', 'allow');
const target = new URL('authorize', url);
const answer = await fetch(target, {
  method: 'POST',
  redirect: 'manual',
  headers: { 'content-type': 'application/x-www-form-urlencoded', origin: target.origin, cookie },
  body: form,
});
const location = answer.headers.get('location');
console.error(`consent page answered ${answer.status}`);
if (location) console.error(`client callback answered ${(await fetch(location)).status}`);
