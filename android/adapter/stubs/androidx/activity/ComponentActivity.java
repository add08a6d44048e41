package androidx.activity;
public class ComponentActivity extends android.app.Activity {
    public final <I, O> androidx.activity.result.ActivityResultLauncher<I> registerForActivityResult(
        androidx.activity.result.contract.ActivityResultContract<I, O> contract, androidx.activity.result.ActivityResultCallback<O> callback) { return null; }
}
