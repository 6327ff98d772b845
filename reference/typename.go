package reference

import "fmt"

func sprintType(v any) string { return fmt.Sprintf("%T", v) }

func sprint(v any) string { return fmt.Sprint(v) }
