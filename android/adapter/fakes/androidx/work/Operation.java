package androidx.work;

/** Fake of the AndroidX interface. */
public interface Operation {}
