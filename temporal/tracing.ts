import { createRequire } from 'node:module';
import type { WorkflowClientInterceptor } from '@temporalio/client';
import type { InjectedSinks, WorkerInterceptors } from '@temporalio/worker';
import { activeTracing } from '../observability/tracing.js';

/** Temporal's OpenTelemetry interceptors, for a process whose tracing is on. */
export interface TemporalTracing {
  /** Spans around starts and signals, and the trace context put in the workflow's headers. */
  client: WorkflowClientInterceptor[];
  /** A span per activity attempt (RunActivity:…), child of the context its headers carry. */
  worker: Pick<WorkerInterceptors, 'activity'>;
  /** The workflow interceptors' module, bundled into the traced workflow bundle only. */
  workflowInterceptorModule: string;
  /** Where the workflow interceptors' spans leave the sandbox. */
  sinks: InjectedSinks<any>;
}

/** The interceptors when startTracing has started the SDK, else null (and nothing is loaded). */
export async function loadTemporalTracing(): Promise<TemporalTracing | null> {
  const tracing = activeTracing();
  if (!tracing) return null;
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
    workflowInterceptorModule: workflowTracingModule(),
    sinks: { exporter: otel.makeWorkflowExporter(tracing.workflowSpans.processor, tracing.workflowSpans.resource) },
  };
}

/** The path of the SDK's workflow interceptors (RunWorkflow, StartActivity spans), for the bundler. */
export function workflowTracingModule(): string {
  return createRequire(import.meta.url).resolve('@temporalio/interceptors-opentelemetry/lib/workflow-interceptors');
}
