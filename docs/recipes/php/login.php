<?php
// POST user=<name>: signs in (a stand-in for your login) and goes back to the page.
declare(strict_types=1);
require __DIR__ . '/app.php';

$user = is_string($_POST['user'] ?? null) ? trim($_POST['user']) : '';
if ($_SERVER['REQUEST_METHOD'] !== 'POST' || !preg_match('/^[A-Za-z0-9._-]{1,64}$/', $user)) {
    http_response_code(400);
    header('Content-Type: text/plain; charset=utf-8');
    echo "POST a user name (letters, digits, . _ -).\n";
    exit;
}
sign_in($user);
header('Location: index.php', true, 303);
