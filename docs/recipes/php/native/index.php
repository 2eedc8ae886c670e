<?php
// Recipe A: the page; its token endpoint is token.php beside it (same origin, so no CORS needed).
declare(strict_types=1);
require __DIR__ . '/../app.php';
render_page('PHP, native token broker', 'token.php');
