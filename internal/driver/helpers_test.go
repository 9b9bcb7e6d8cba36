package driver

import (
	"os"
	"sync"
	"testing"
)

var tempDirs struct {
	sync.Mutex
	list []string
}

func TestMain(m *testing.M) {
	code := m.Run()
	for _, d := range tempDirs.list {
		os.RemoveAll(d)
	}
	os.Exit(code)
}

func lookupFromOS() lookupFunc { return os.LookupEnv }

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// tempDirNoCleanup returns a directory that outlives a single test, for
// artefacts shared by several tests (the fake driver stays dlopen'ed).
// TestMain removes them at exit.
func tempDirNoCleanup() (string, error) {
	d, err := os.MkdirTemp("", "softmax-fakecuda-")
	if err == nil {
		tempDirs.Lock()
		tempDirs.list = append(tempDirs.list, d)
		tempDirs.Unlock()
	}
	return d, err
}
