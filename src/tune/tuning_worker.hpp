// The worker process's side of isolated tuning: a LocalBench in its own CUDA context,
// serving the requests of the run that spawned it (tune/worker_protocol.hpp). A candidate
// that faults ends only this process; the run starts a fresh one.
#pragma once

namespace jitgemm {

// Serves the protocol on socket `fd` until end of stream (exit code 0), a setup or protocol
// failure (reported to the run first; 1) or a fault that lost the context (3, right after
// its verdict). jitgemm-tune-worker's main.
int run_tuning_worker(int fd);

}  // namespace jitgemm
