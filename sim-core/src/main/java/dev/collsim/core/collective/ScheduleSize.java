package dev.collsim.core.collective;

/** How many transfers and dependencies a schedule holds, counted before building it so that its builder is sized once. */
record ScheduleSize(long transfers, long dependencies) {
    /** The size of a built schedule. */
    static ScheduleSize of(Schedule s) {
        int n = s.transferCount();
        return new ScheduleSize(n, n == 0 ? 0 : s.successorsTo(n - 1));
    }
}
