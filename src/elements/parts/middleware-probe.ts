/**
 * Whether the middleware is there, asked without a token (none is spent, nothing is authorized): any HTTP
 * answer of its base address, a 401 included, means it is. `<bio-diagnostics>`' middleware row reports it
 * (src/elements/bio-diagnostics/checks.ts); a card's `network` or `timeout` failure clears once it answers again (src/elements/base/operation-element.ts).
 */
import { requireHttpUrl } from '../../core/config.js';
import { joinPath, send } from '../../core/http.js';
import { resolveUrl, timeoutOf, type Settings } from './settings.js';

/** The middleware's base address of these settings; throws a config error naming middleware-url. */
export const middlewareBase = (s: Settings): string => joinPath(requireHttpUrl(resolveUrl(s.middlewareUrl), 'middleware-url'), '');

/** The HTTP status the middleware at `url` answers without a token; rejects as any call does (network, timeout, aborted). */
export async function askMiddleware(url: string, s: Settings, signal?: AbortSignal): Promise<number> {
  return (await send({ url, credentials: 'omit', redirectIsReply: true }, { timeoutMs: timeoutOf(s), signal, peer: 'the middleware' }))
    .status;
}
