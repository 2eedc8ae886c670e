<?php
// Shared by both recipes: a stand-in for YOUR application's sign-in (PHP sessions with a hardened
// cookie) and the page with the script-tag quick start. Replace current_user() with your own.
declare(strict_types=1);

ini_set('session.use_strict_mode', '1');   // an unknown session id is refused, never adopted
ini_set('session.use_only_cookies', '1');
session_set_cookie_params([
    'path' => '/',
    'httponly' => true,
    'samesite' => 'Lax',
    'secure' => ($_SERVER['HTTPS'] ?? 'off') !== 'off' && ($_SERVER['HTTPS'] ?? '') !== '',
]);

/** The signed-in user's name, or null. Starts no session for a request without a session cookie. */
function current_user(): ?string
{
    if (!isset($_COOKIE[session_name()])) {
        return null;
    }
    session_start(['read_and_close' => true]);
    $user = $_SESSION['user'] ?? null;
    return is_string($user) && $user !== '' ? $user : null;
}

function sign_in(string $user): void
{
    session_start();
    session_regenerate_id(true);
    $_SESSION['user'] = $user;
    session_write_close();
}

function env(string $name, string $default = ''): string
{
    $value = getenv($name);
    return $value === false || trim($value) === '' ? $default : trim($value);
}

function h(string $text): string
{
    return htmlspecialchars($text, ENT_QUOTES | ENT_HTML5, 'UTF-8');
}

/** The sign-in form, or the quick start (README, quick start 1) with the token endpoint of the recipe. */
function render_page(string $title, string $tokenEndpoint): void
{
    header('Content-Type: text/html; charset=utf-8');
    header('Cache-Control: no-store');
    $user = current_user();
    echo "<!doctype html>\n<html lang=\"en\">\n<head><meta charset=\"utf-8\"><title>", h($title), "</title></head>\n<body>\n";
    echo '<h1>', h($title), "</h1>\n";
    if ($user === null) {
        echo "<form class=\"signin\" method=\"post\" action=\"login.php\">\n",
            "  <label>User <input name=\"user\" autocomplete=\"username\" required></label>\n",
            "  <button type=\"submit\">Sign in</button>\n</form>\n</body>\n</html>\n";
        return;
    }
    $attributes = 'middleware-url="' . h(env('BIOID_MIDDLEWARE_URL')) . '" token-endpoint="' . h($tokenEndpoint) . '"'
        . ' integrator-id="' . h(env('BIOID_INTEGRATOR_ID')) . '" subject-id="' . h($user) . '"';
    $local = env('BIOID_LOCAL_SERVICE_URL');
    if ($local !== '') {
        $attributes .= ' local-service-url="' . h($local) . '"';
    }
    echo '<p>Signed in as ', h($user), "</p>\n",
        '<script src="', h(env('BIOID_ELEMENTS_URL', 'bioid-elements.php')), "\"></script>\n",
        "<bio-enroll {$attributes}></bio-enroll>\n",
        "<bio-verify {$attributes}></bio-verify>\n",
        "<script>\n",
        "  document.addEventListener('bio-result', (e) => console.log(e.detail.result));\n",
        "  document.addEventListener('bio-error', (e) => console.warn(e.detail.code, e.detail.message));\n",
        "</script>\n</body>\n</html>\n";
}
