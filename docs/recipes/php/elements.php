<?php
// Serves bioid-elements.js from the installed package, so the recipes run as written with `php -S`,
// which serves only the recipe's own folder. This file sits at docs/recipes/php/ both in this repository
// and in node_modules/bioid-sdk, so the script is at ../../../dist/ from here in either. In production,
// serve dist/bioid-elements.js as a static file (or from a CDN) and set BIOID_ELEMENTS_URL to its URL.
declare(strict_types=1);

$script = __DIR__ . '/../../../dist/bioid-elements.js';
if (!is_file($script)) {
    http_response_code(404);
    header('Content-Type: text/plain; charset=utf-8');
    echo "bioid-elements.js is not at {$script}: run the recipe from node_modules/bioid-sdk/docs/recipes/php, or set BIOID_ELEMENTS_URL.\n";
    return;
}
header('Content-Type: text/javascript; charset=utf-8');
header('X-Content-Type-Options: nosniff');
header('Cache-Control: no-cache');
readfile($script);
