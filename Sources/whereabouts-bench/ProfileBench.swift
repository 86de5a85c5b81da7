func runProfileBench(_ plan: BenchPlan) {}
