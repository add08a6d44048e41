package androidx.work;

/** Fake of the AndroidX enum. */
public enum OutOfQuotaPolicy { RUN_AS_NON_EXPEDITED_WORK_REQUEST, DROP_WORK_REQUEST }
