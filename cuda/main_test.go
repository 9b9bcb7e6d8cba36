package cuda

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/gofused/softmax/internal/driver"
)

// TestMain says once, in one line, why the GPU tests of this package (and
// of internal/driver and bench, which skip for the same reason) skipped.
// `go test ./...` shows a passing package's output only with -v, so the
// line goes to the terminal (/dev/tty) where there is one, else to stderr.
func TestMain(m *testing.M) {
	if d, err := Open(0); err != nil {
		w, closeW := noticeWriter()
		skipNotice(w, err)
		closeW()
	} else {
		d.Close()
	}
	os.Exit(m.Run())
}

// skipNotice writes the one line, shortening a missing library's list of
// places tried.
func skipNotice(w io.Writer, err error) {
	reason := err.Error()
	var nf *driver.NotFoundError
	if errors.As(err, &nf) && nf.Platform == "" {
		reason = fmt.Sprintf("no GPU: %s not found (softmax info lists where it looked)", nf.Library)
	}
	fmt.Fprintf(w, "softmax: GPU tests skipped: %s\n", reason)
}

// noticeWriter returns the terminal, or stderr without one.
func noticeWriter() (io.Writer, func()) {
	if tty, err := os.OpenFile("/dev/tty", os.O_WRONLY, 0); err == nil {
		return tty, func() { tty.Close() }
	}
	return os.Stderr, func() {}
}

func TestSkipNotice(t *testing.T) {
	for _, err := range []error{
		&driver.NotFoundError{Library: "libcuda.so.1", Tried: []string{"a", "b"}},
		driver.NewError("cuInit", driver.CUDA_ERROR_NO_DEVICE),
	} {
		var b strings.Builder
		skipNotice(&b, err)
		line := b.String()
		if strings.Count(line, "\n") != 1 || !strings.HasPrefix(line, "softmax: GPU tests skipped: ") || !strings.Contains(line, "no GPU") && !strings.Contains(line, "NO_DEVICE") {
			t.Errorf("notice for %v: %q", err, line)
		}
	}
}
