package dev.collsim.core.nccl;

import dev.collsim.core.collective.CollectiveRequest;
import java.util.List;

/**
 * What NCCL would run for one collective: the algorithm, and the request (protocol, channels,
 * threads) the simulation executes, with the cost model's estimate for every candidate.
 */
public record Plan(NcclAlgo algo, CollectiveRequest request, NcclTuner.Estimate chosen, List<NcclTuner.Estimate> candidates) {}
