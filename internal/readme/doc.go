// Package readme holds the test that runs the commands of the repository's
// README.md as a newcomer would copy them: every line of a sh code block
// that starts with "go run" must succeed from the repository's root. It
// has no code of its own.
package readme
