<?php
// Recipe A: the token broker in plain PHP (php-cli + php-curl), rule by rule of docs/broker-contract.md.
// Configuration from the environment, as the reference broker reads it: BIOID_CLIENT_ID,
// BIOID_CLIENT_SECRET, BIOID_AUTH_URL, BIOID_REALM (required), BIOID_AUDIENCE, BIOID_SCOPE,
// BIOID_ALLOWED_ORIGINS (comma-separated exact origins), BIOID_MIDDLEWARE_URL.
declare(strict_types=1);
require __DIR__ . '/../app.php';

const EXCHANGE_TIMEOUT_MS = 10000;

/** Ends the request with a JSON answer that is never stored (rule 7). */
function answer(int $status, array $body): never
{
    http_response_code($status);
    header('Content-Type: application/json; charset=utf-8');
    header('Cache-Control: no-store');
    header('Pragma: no-cache');
    header('X-Content-Type-Options: nosniff');
    echo json_encode($body, JSON_UNESCAPED_SLASHES);
    exit;
}

/** One line for the server's log: JSON, so a hostile Origin stays on its line. Never a secret or token. */
function log_line(array $fields): void
{
    error_log('bioid token broker: ' . json_encode($fields, JSON_UNESCAPED_SLASHES));
}

/** Rule 6: Vary on every answer; the grant only for an exact allowed origin, never "*". */
$allowed = array_values(array_filter(array_map('trim', explode(',', env('BIOID_ALLOWED_ORIGINS')))));
$origin = isset($_SERVER['HTTP_ORIGIN']) ? (string) $_SERVER['HTTP_ORIGIN'] : null;
header('Vary: Origin');
$granted = $origin !== null && in_array($origin, $allowed, true);
if ($granted) {
    header('Access-Control-Allow-Origin: ' . $origin);
    header('Access-Control-Allow-Credentials: true');
}

$method = $_SERVER['REQUEST_METHOD'] ?? 'GET';
// Rule 2: preflight.
if ($method === 'OPTIONS') {
    if (!$granted) {
        log_line(['event' => 'refused', 'reason' => 'origin-not-allowed', 'status' => 403, 'origin' => $origin === null ? null : substr($origin, 0, 200),
            'fix' => 'add this exact origin to BIOID_ALLOWED_ORIGINS if its pages should get tokens']);
        header('Allow: GET, OPTIONS');
        http_response_code(403);
        exit;
    }
    header('Vary: Origin, Access-Control-Request-Method, Access-Control-Request-Headers');
    header('Access-Control-Allow-Methods: GET');
    header('Access-Control-Allow-Headers: X-CSRF');
    header('Access-Control-Max-Age: 600');
    http_response_code(204);
    exit;
}
// Rule 1: GET only.
if ($method !== 'GET') {
    header('Allow: GET, OPTIONS');
    answer(405, ['error' => 'Use GET to obtain a token.']);
}
// Rule 3: the anti-CSRF header, before the session.
if (($_SERVER['HTTP_X_CSRF'] ?? '') !== '1') {
    answer(403, ['error' => 'Missing anti-CSRF header: send X-CSRF: 1.', 'reason' => 'csrf']);
}
// Rules 4 and 5: the session gate; "no-cookie" when the browser says it withheld the cookie.
if (current_user() === null) {
    if (($_SERVER['HTTP_SEC_FETCH_SITE'] ?? '') === 'cross-site' && !isset($_SERVER['HTTP_COOKIE'])) {
        answer(401, ['error' => 'No session cookie arrived: the browser does not send cookies to a token broker on another site. Host the token broker on the page\'s site.', 'reason' => 'no-cookie']);
    }
    answer(401, ['error' => 'Sign in to obtain a token.', 'reason' => 'no-session']);
}

// Rules 8 and 9: the organisation's token, cached just under its expires_in; rule 10 when that fails.
try {
    [$token, $left] = cached_token();
} catch (Throwable $e) {
    log_line(['event' => 'failure', 'message' => 'client_credentials exchange failed: ' . $e->getMessage() . '; answered 502']);
    answer(502, ['error' => 'The identity provider did not issue a token. Try again later.']);
}
$body = ['access_token' => $token, 'expires_in' => $left];
if (env('BIOID_MIDDLEWARE_URL') !== '') {
    $body['middleware_url'] = env('BIOID_MIDDLEWARE_URL');
}
answer(200, $body);

/**
 * [token, seconds left]. One cache file for the whole server (mode 0600 in the system's temp directory;
 * APCu or Redis do the same job): a shared lock to read it, an exclusive one to refill it, so one PHP
 * worker exchanges while the others wait for its token (single flight) and a failure is never stored.
 */
function cached_token(): array
{
    $endpoint = token_endpoint();
    $path = sys_get_temp_dir() . '/bioid-token-' . hash('sha256', $endpoint . "\n" . env('BIOID_CLIENT_ID')) . '.json';
    $handle = fopen($path, 'c+');
    if ($handle === false) {
        throw new RuntimeException('cannot open the token cache file');
    }
    chmod($path, 0600);
    try {
        flock($handle, LOCK_SH);
        $held = fresh(stream_get_contents($handle));
        if ($held === null) {
            flock($handle, LOCK_EX);
            rewind($handle);
            $held = fresh(stream_get_contents($handle));   // another worker may have refilled it meanwhile
            if ($held === null) {
                [$token, $expiresIn] = exchange($endpoint);
                // Spec 5.6: keep it just under expires_in (30 s, or a tenth of a short lifetime).
                $held = ['token' => $token, 'until' => microtime(true) + $expiresIn - min(30, $expiresIn / 10)];
                ftruncate($handle, 0);
                rewind($handle);
                fwrite($handle, json_encode($held));
                fflush($handle);
            }
        }
    } finally {
        flock($handle, LOCK_UN);
        fclose($handle);
    }
    // Rule 9: what is left, in whole seconds, never 0.
    return [$held['token'], max(1, (int) floor($held['until'] - microtime(true)))];
}

/** The cached entry when it is still good, else null. */
function fresh(string|false $text): ?array
{
    $held = $text ? json_decode($text, true) : null;
    return is_array($held) && is_string($held['token'] ?? null) && is_numeric($held['until'] ?? null) && $held['until'] > microtime(true) + 1
        ? $held : null;
}

function token_endpoint(): string
{
    foreach (['BIOID_CLIENT_ID', 'BIOID_CLIENT_SECRET', 'BIOID_AUTH_URL', 'BIOID_REALM'] as $name) {
        if (env($name) === '') {
            throw new RuntimeException("environment variable {$name} is not set");
        }
    }
    return rtrim(env('BIOID_AUTH_URL'), '/') . '/realms/' . rawurlencode(env('BIOID_REALM')) . '/protocol/openid-connect/token';
}

/** Spec 4.2: the client_credentials exchange. Returns [access_token, expires_in]. Messages hold no secret. */
function exchange(string $endpoint): array
{
    $form = [
        'grant_type' => 'client_credentials',
        'client_id' => env('BIOID_CLIENT_ID'),
        'client_secret' => env('BIOID_CLIENT_SECRET'),
        'audience' => env('BIOID_AUDIENCE', 'biometrics-middleware'),
    ];
    if (env('BIOID_SCOPE') !== '') {
        $form['scope'] = env('BIOID_SCOPE');
    }
    $curl = curl_init($endpoint);
    curl_setopt_array($curl, [
        CURLOPT_POST => true,
        CURLOPT_POSTFIELDS => http_build_query($form),
        CURLOPT_HTTPHEADER => ['Accept: application/json'],
        CURLOPT_RETURNTRANSFER => true,
        CURLOPT_FOLLOWLOCATION => false,           // the secret never travels on to another address
        CURLOPT_PROTOCOLS => CURLPROTO_HTTPS | CURLPROTO_HTTP,
        CURLOPT_CONNECTTIMEOUT_MS => 5000,
        CURLOPT_TIMEOUT_MS => EXCHANGE_TIMEOUT_MS,
    ]);
    $text = curl_exec($curl);
    $status = (int) curl_getinfo($curl, CURLINFO_RESPONSE_CODE);
    $error = curl_error($curl);
    curl_close($curl);
    if ($text === false) {
        throw new RuntimeException("{$endpoint} unreachable ({$error})");
    }
    $json = json_decode((string) $text, true);
    if ($status !== 200 || !is_array($json) || !is_string($json['access_token'] ?? null) || $json['access_token'] === ''
        || !is_numeric($json['expires_in'] ?? null) || $json['expires_in'] <= 0) {
        // The status only: the identity provider's body stays out of the log.
        throw new RuntimeException("{$endpoint} answered HTTP {$status} without a valid { access_token, expires_in }");
    }
    return [$json['access_token'], (float) $json['expires_in']];
}
