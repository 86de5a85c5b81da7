import CMallocCounter
print("whereabouts-bench: no benchmarks yet (allocations so far: \(whereabouts_malloc_count()))")
