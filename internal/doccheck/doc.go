// Package doccheck holds the test that every exported name of the
// repository's packages has a doc comment: packages, functions, methods of
// exported types, types, constants, variables and the methods of exported
// interfaces (struct fields are left to their struct's comment, as golint
// and revive have it). It has no code of its own.
package doccheck
