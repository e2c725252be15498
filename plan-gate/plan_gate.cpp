// plan_gate.cpp: placeholder until the hook lands.
