package dev.pushledger.sdk;

import org.jetbrains.annotations.NotNull;
import org.jetbrains.annotations.Nullable;

/** {@code UsageStatsManager.getAppStandbyBucket()} (API 28+): how often the system lets the app run. */
public enum StandbyBucket {
    ACTIVE(10), WORKING_SET(20), FREQUENT(30), RARE(40), RESTRICTED(45);

    private final int constant;

    StandbyBucket(int constant) { this.constant = constant; }

    /** The {@code UsageStatsManager.STANDBY_BUCKET_*} constant. */
    public int constant() { return constant; }

    /**
     * The bucket for a {@code STANDBY_BUCKET_*} constant; null for one the contract has no word
     * for (a later Android's bucket is left out of the snapshot, never guessed).
     */
    public static @Nullable StandbyBucket fromConstant(int constant) {
        for (StandbyBucket bucket : values()) {
            if (bucket.constant == constant) return bucket;
        }
        return null;
    }

    /** The contract's word: {@code active}, {@code working_set}, … */
    public @NotNull String wire() { return Wire.of(this); }
}
