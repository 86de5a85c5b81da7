// Each benchmark lives in its own file and is called here, one line each.
runDecoderBench()
runStorageBench()
runEngineBench()
