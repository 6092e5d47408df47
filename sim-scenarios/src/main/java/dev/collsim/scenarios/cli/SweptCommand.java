package dev.collsim.scenarios.cli;

import dev.collsim.scenarios.sweep.PointResult;

/** A command a sweep can run as its points: it hands its typed result back instead of printing it. */
interface SweptCommand {
    /** The command's run as one point: its result, or an InputException for what it refuses. */
    PointResult point();
}
