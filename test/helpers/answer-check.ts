// Loaded before every test file: the daemons the tests start (in process, and the binaries they
// spawn, which inherit the environment) check each JSON answer against its operation's response
// schema (src/server/serve.ts), so a schema that no longer describes the answers fails a test.
process.env.SIGNET_CHECK_ANSWERS = "1";
