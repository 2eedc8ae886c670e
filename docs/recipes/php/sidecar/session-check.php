<?php
// Recipe B: the session check `bioid-broker serve` asks with each token request's Cookie header
// (BIOID_SESSION_CHECK_URL). 204 = signed in; 401 = not. That is all the PHP side of the broker is.
// Keep it on an address only the sidecar reaches, or leave it public: it tells a caller no more than
// whether its own cookie is signed in.
//
// RFC 8693 variant (BIOID_TOKEN_EXCHANGE=true): answer 200 { "subject_token": "<the user's access
// token from your identity provider>" } instead of 204, for example from $_SESSION['access_token'].
declare(strict_types=1);
require __DIR__ . '/../app.php';

header('Cache-Control: no-store');
if (current_user() === null) {
    http_response_code(401);
    exit;
}
http_response_code(204);
