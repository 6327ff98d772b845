package suites

import "context"

func ctxBackground() context.Context { return context.Background() }
