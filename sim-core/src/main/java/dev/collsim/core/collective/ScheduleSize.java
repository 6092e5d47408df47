package dev.collsim.core.collective;

/** How many transfers and dependencies a schedule holds, counted before building it so that its builder is sized once. */
record ScheduleSize(long transfers, long dependencies) {
    /** The size of a built schedule. */
    static ScheduleSize of(Schedule s) {
        return new ScheduleSize(s.transferCount(), s.dependencyCount());
    }
}
