package softmax_test

import (
	"fmt"

	"github.com/gofused/softmax"
)

// The loss of two rows of three classes and its gradient, computed in one
// pass; the second row is ignored (torch's default ignore index, −100).
func ExampleCrossEntropy() {
	logits := softmax.Tensor{Shape: []int{2, 3}, DType: softmax.Float32,
		F32: []float32{1, 2, 3, 0, 0, 0}}
	targets := softmax.Targets{I64: []int64{2, -100}}
	grad, _ := softmax.NewTensor(softmax.Float32, 2, 3)
	loss := make([]float64, 1)
	err := softmax.CrossEntropy(logits, targets, softmax.CrossEntropyOptions{},
		softmax.CrossEntropyOutput{Loss: loss, Grad: &grad})
	fmt.Println(err)
	fmt.Printf("loss %.4f\n", loss[0])
	fmt.Printf("grad %.4f\n", grad.F32)
	// Output:
	// <nil>
	// loss 0.4076
	// grad [0.0900 0.2447 -0.3348 0.0000 0.0000 0.0000]
}
