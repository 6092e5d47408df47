package dev.collsim.core.nccl;

import dev.collsim.core.collective.CollectiveRequest;
import java.util.List;

/**
 * What would run for one collective: the algorithm, and the request (protocol, channels) the
 * simulation executes, with NCCL's cost-model estimate for every candidate it weighed.
 *
 * @param chosen the estimate of what runs, or null where the tuner plays no part (point to point,
 *               inference kernels)
 */
public record Plan(AlgorithmId algo, CollectiveRequest request, NcclTuner.Estimate chosen,
                   List<NcclTuner.Estimate> candidates) {}
