// verdict_nudge.cpp: placeholder until the hook lands.
