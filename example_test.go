package softmax_test

import (
	"fmt"

	"github.com/gofused/softmax"
)

// Softmax over the last axis of a 2×3 matrix.
func ExampleSoftmax() {
	x := []float32{1, 2, 3, 0, 0, 0}
	y := make([]float32, len(x))
	if err := softmax.Softmax(y, x, []int{2, 3}, -1); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%.4f\n", y)
	// Output: [0.0900 0.2447 0.6652 0.3333 0.3333 0.3333]
}

// A fused temperature: log_softmax(x / 2) along axis 0, in place.
func ExampleForward() {
	x := []float32{0, 2, 2, 0}
	err := softmax.Forward(softmax.OpLogSoftmax, x, x, []int{2, 2}, softmax.Options{Axis: 0, Scale: 0.5})
	fmt.Printf("%.4f %v\n", x, err)
	// Output: [-1.3133 -0.3133 -0.3133 -1.3133] <nil>
}

// Gradient of softmax: dx = y·(dy − Σ dy·y).
func ExampleBackward() {
	y := []float32{0.25, 0.75}
	dy := []float32{1, 2}
	dx := make([]float32, 2)
	err := softmax.Backward(softmax.OpSoftmaxBackward, dx, y, dy, []int{2}, softmax.Options{Axis: -1})
	fmt.Println(dx, err)
	// Output: [-0.1875 0.1875] <nil>
}

// A bfloat16 tensor whose dtype is chosen at run time.
func ExampleApply() {
	x, _ := softmax.NewTensor(softmax.BFloat16, 1, 4)
	for i := range x.U16 {
		x.U16[i] = uint16(softmax.BFloat16From(float32(i)))
	}
	if err := softmax.Apply(softmax.OpSoftmax, x, x, softmax.Options{Axis: -1}); err != nil {
		fmt.Println(err)
		return
	}
	for _, b := range x.U16 {
		fmt.Printf("%.3f ", softmax.BFloat16Value(b).Float32())
	}
	fmt.Println()
	// Output: 0.032 0.087 0.237 0.645
}
