"""What a response says as text, whatever its task: engines every judge and room reads (a response that commits
to nothing: `silence`)."""
