// Package oracle is the planner as it stood before its preferences became
// the table (internal/plan, commit 750679c): test-only, the reference that
// internal/plan's differential test (TestDifferential) compares the table's
// picks against. Nothing outside that test imports it; do not edit it
// except to keep it compiling.
package oracle
