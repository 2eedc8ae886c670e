/**
 * The variables `bioid-broker check` reads, declared once: CHECK_ENV (cli.ts) and the check's table in
 * docs/operations.md (`npm run docs`, scripts/docs-reference.mjs) derive from it. The cookies are read by
 * cli.ts's cookieFrom, which also takes them from stdin.
 */
export const CHECK_VARIABLES = {
  cookie: {
    env: 'BIOID_CHECK_COOKIE',
    doc: 'the Cookie header (`<name>=<value>`) of a signed-in session, for the rules that need one ([broker-contract.md](broker-contract.md#checking-a-broker)); safer than `--cookie`, which other users of the machine can see',
  },
  secondCookie: {
    env: 'BIOID_CHECK_SECOND_COOKIE',
    doc: "another user's session, for the RFC 8693 rule that each user gets a token of their own",
  },
} as const satisfies Record<string, { env: `BIOID_${string}`; doc: string }>;

export const CHECK_ENV = {
  cookie: CHECK_VARIABLES.cookie.env,
  secondCookie: CHECK_VARIABLES.secondCookie.env,
} as const;
