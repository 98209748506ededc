package bufpool

import "runtime"

func runtimeGC() { runtime.GC() }
