package android.app;

import android.content.Context;

/** Fake: a component of the application context it is created with. */
public class Activity extends Context {
    public Activity(Context application) { super(application); }
}
