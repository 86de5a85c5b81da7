// Each benchmark lives in its own file and is called here, one line each.
// `make bench` runs the suite (BenchSuite.swift): it runs each bench below in a child
// process (`--only NAME`) and prints their figures as one table (arguments: BenchPlan.swift).
import Foundation

let plan = BenchPlan(arguments: Array(CommandLine.arguments.dropFirst()))
if let problem = plan.problem {
    FileHandle.standardError.write(Data("whereabouts-bench: \(problem)\n\(BenchPlan.usage)\n".utf8))
    exit(64)
}
if plan.help { print(BenchPlan.usage); exit(0) }
if plan.runs("decoder") { runDecoderBench(seconds: plan.scale.childSeconds) }
if plan.runs("storage") { runStorageBench(points: plan.scale.storagePoints) }
if plan.runs("engine") { runEngineBench(seconds: plan.scale.childSeconds) }
if plan.runs("edge") { runEdgeBench(plan) }
if plan.runs("e2e") { runEndToEndBench(plan) }
if plan.runs("burst") { runBurstBench(plan) }
if plan.runs("storage-cost") { runStorageCostBench(plan) }
if plan.runs("memory") { runMemoryBench(plan) }
if plan.runs("scaling") { runScalingBench(plan) }
if plan.runs("profile") { runProfileBench(plan) }
if plan.runs("shards") { runShardBench(plan) }
if plan.runs("edge-partitions") { runEdgePartitionsBench(plan) }
if plan.isSuite { runBenchSuite(plan) }
