<?php
// Recipe B: the page. The token endpoint is `bioid-broker serve` beside this app: behind the same
// reverse proxy (/bioid/token, the default) or at its own address (BIOID_TOKEN_ENDPOINT).
declare(strict_types=1);
require __DIR__ . '/../app.php';
render_page('PHP with the bioid-broker sidecar', env('BIOID_TOKEN_ENDPOINT', '/bioid/token'));
