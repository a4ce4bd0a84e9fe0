import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { BrowserRouter } from 'react-router';
import { App } from './App';
import { ApiError } from './api/http';
import { DocumentTitle } from './components/DocumentTitle';
import './styles.css';

const queryClient = new QueryClient({
  defaultOptions: {
    queries: {
      // An answer the API gave on purpose (4xx) is not retried; a 503 or a network failure is, twice.
      retry: (count, error) => !(error instanceof ApiError && error.status < 500) && count < 2,
      refetchOnWindowFocus: false,
    },
  },
});

const root = document.getElementById('root');
if (root === null) throw new Error('index.html has no #root');
createRoot(root).render(
  <StrictMode>
    <QueryClientProvider client={queryClient}>
      <BrowserRouter basename="/dashboard">
        <DocumentTitle />
        <App />
      </BrowserRouter>
    </QueryClientProvider>
  </StrictMode>,
);
