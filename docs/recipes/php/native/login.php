<?php
// The shared sign-in of the recipes.
require __DIR__ . '/../login.php';
