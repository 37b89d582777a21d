import type { WorkflowClientInterceptor } from '@temporalio/client';
import type { WorkerInterceptors } from '@temporalio/worker';
import { tracingActive } from '../config/tracing.js';

/** Temporal's OpenTelemetry interceptors, for a process whose tracing is on. */
export interface TemporalTracing {
  /** Spans around starts and signals, and the trace context put in the workflow's headers. */
  client: WorkflowClientInterceptor[];
  /** A span per activity attempt (RunActivity:…), child of the context its headers carry. */
  worker: Pick<WorkerInterceptors, 'activity'>;
}

/** The interceptors when startTracing has started the SDK, else null (and nothing is loaded). */
export async function loadTemporalTracing(): Promise<TemporalTracing | null> {
  if (!tracingActive()) return null;
  const otel = await import('@temporalio/interceptors-opentelemetry');
  return {
    client: [new otel.OpenTelemetryWorkflowClientInterceptor()],
    worker: {
      activity: [
        (ctx) => ({
          inbound: new otel.OpenTelemetryActivityInboundInterceptor(ctx),
          outbound: new otel.OpenTelemetryActivityOutboundInterceptor(ctx),
        }),
      ],
    },
  };
}
