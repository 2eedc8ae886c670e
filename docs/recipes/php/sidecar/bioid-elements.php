<?php
// The script of the elements, from the installed package (see ../elements.php).
declare(strict_types=1);
require __DIR__ . '/../elements.php';
